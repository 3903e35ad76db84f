"""Math evidence, the engine below `match_reference`, `check_computations` and `derived_reference`: final answers
and when two are the same (`answers`), multiple-choice options (`choices`), the arithmetic a solution writes out
(`computations`), and when nothing settles a math question (`unsettled`)."""
