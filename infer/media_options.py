"""The media conversion settings the command line offers, apart from the converters (which load av, numpy and
PIL) so that ``avibench infer --help`` does not load them."""

#: Sample rate (Hz) of converted audio.
AUDIO_RATE = 16000
#: Formats audio can be converted to before it is sent.
AUDIO_FORMATS = ("wav", "flac", "mp3")
