"""Daily-Omni: audio-visual multiple choice on short videos (Lliar-liar/Daily-Omni)."""
