"""Published STAR-Bench numbers: the paper's results table, which is for data version v0.5.

The table reports "MA (%)" without saying whether it is AA or ACR, so these numbers are shown beside, never
compared as equal to, either of ours. The official v1.0 data revised the spatial questions; its leaderboard was
announced but not published, so v0.5 and v1.0 numbers are not comparable.
"""

from __future__ import annotations

from avibench.kits.published import PublishedRow, table

DATA_VERSION = "v0.5"
SOURCE = "STAR-Bench paper, main results table (assets/results.png in the official repository)"


#: The table's rows: MA as ``headline``, the perception, temporal and spatial parts as ``task:pc``, ``task:tr`` and
#: ``task:sr`` where the table lists them.
PUBLISHED: tuple[PublishedRow, ...] = table("starbench")
