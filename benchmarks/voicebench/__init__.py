"""VoiceBench (MatthewCYM/VoiceBench): spoken instructions to voice assistants, scored by its official evaluators."""
