"""AVI-Bench (ICML 2026): the first benchmark plug-in, 14 tasks in four stages."""
