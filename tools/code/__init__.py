"""Code evidence, the engine below `run_code`, `run_examples`, `differential_test`, `oracle_check` and `python`:
what a language is (`language`) and each one (`languages/`), the stdin/stdout languages' build and run
(`languages/_base.py`), reading a statement and its examples (`statement`), finding a candidate's code
(`candidate_code`), observing programs in the sandbox (`observe`, `python_runs`), calling a function in any
language (`calls`), the inputs differential testing varies and the model writes (`inputs`, `model_inputs`),
running examples (`examples`) and comparing candidates on generated inputs (`compare_candidates`, over the
vocabulary of `disagreements`)."""
