"""The starbench benchmark plug-in."""
