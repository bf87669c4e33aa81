# docs: the manual pages.
dist_man_MANS += docs/muster.1 docs/muster.3 docs/muster.conf.5
EXTRA_DIST += docs/decisions.md docs/fuzzing.md docs/platforms.md docs/ranks.md
