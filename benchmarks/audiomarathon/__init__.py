"""The audiomarathon benchmark plug-in."""
