"""The AudioMarathon benchmark plug-in: ten long-audio tasks under their leaderboard abbreviations.

``plugin`` declares the tasks and how a response is read and scored, ``layout`` loads and validates the official data
layout, ``results`` reads and writes the official result files for rescoring, ``efficiency`` is the report's
efficiency section and ``sample`` generates a small deterministic copy of the layout. Protocol data (prompts, layout,
result keys, word lists, published tables) is in ``prompts/audiomarathon``.
"""
