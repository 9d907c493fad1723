#!/bin/sh
# What the tests need of the machine besides node_modules: bubblewrap (every graded program, and the
# bundler, runs in its sandbox), Chromium (the browser the HTML report and the OAuth sign-ins are
# opened in) and tmux (the terminal watch mode's keys are pressed in). Run before `npm test` (its pretest) and by .ci/run: installs what is missing with
# apt-get where it can (root, Debian or Ubuntu), else says what to install and stops.
missing=""
command -v bwrap >/dev/null 2>&1 || missing="$missing bubblewrap"
command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing$missing (the tests need them)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
  exit $?
fi
echo "the tests need$missing: install them (Debian/Ubuntu: sudo apt-get install$missing)" >&2
exit 1
