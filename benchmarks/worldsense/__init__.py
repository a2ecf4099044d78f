"""WorldSense: omni-modal video understanding, scored as VLMEvalKit scores it."""
