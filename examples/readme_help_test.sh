#!/usr/bin/env bash
# The README's table of `kiln` commands (section "The `kiln` command") and `kiln help` name the same
# commands: the README says what exists today, and a command added to (or removed from) the CLI
# without the README, or the other way round, fails here.
# Usage: readme_help_test.sh KILN README
set -euo pipefail
help_cmds=$("$1" help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }' | sort -u)
# Table rows start with | `kiln CMD or | `kiln CMD\|CMD2...
readme_cmds=$(awk '/^## The `kiln` command/ { on = 1; next } on && /^## / { exit } on' "$2" |
  grep -o '^| `kiln [a-z\\|]*' | sed -e 's/^| `kiln //' -e 's/\\|/\n/g' | sort -u)
if [[ -z "$help_cmds" || -z "$readme_cmds" ]]; then
  echo "no commands found (kiln help: '$help_cmds'; README: '$readme_cmds')" >&2
  exit 1
fi
if [[ "$help_cmds" != "$readme_cmds" ]]; then
  echo "kiln help and README.md list different commands (< kiln help, > README.md):" >&2
  diff <(echo "$help_cmds") <(echo "$readme_cmds") >&2 || true
  exit 1
fi
echo "kiln help and README.md list the same $(wc -l <<<"$help_cmds") commands"
