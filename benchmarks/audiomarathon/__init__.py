"""The AudioMarathon benchmark plug-in: ten long-audio tasks under their leaderboard abbreviations.

``layout`` loads and validates the official data layout, ``prompt`` renders the official prompts, ``scoring`` turns
responses into the reference and strict blocks, ``results`` reads and writes the official result files for rescoring,
``sample`` generates a small deterministic copy of the layout; its published tables are data in ``prompts/audiomarathon/published.json``.
"""
