"""The omnibench benchmark plug-in."""
