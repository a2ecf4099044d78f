"""The mmar benchmark plug-in."""
