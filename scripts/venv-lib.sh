# What the *-env.sh scripts share; sourced, not run.
#
# start_venv VENV STAMP: end the calling script where STAMP shows VENV already built (its versions recorded in
# STAMP's name); else make VENV with $PYTHON (default python3), if it is not there, and bring its pip up to date.
start_venv() {
  local venv="$1" stamp="$2"
  if [ -f "$stamp" ]; then
    exit 0
  fi
  test -x "$venv/bin/python" || "${PYTHON:-python3}" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --upgrade pip
}
