"""The airbench benchmark plug-in."""
