#!/usr/bin/env bash
# Makes one random MQTT password per user and mosquitto's password file from them.
#
# usage: make-passwords.sh [--dir DIR] USER...
#
#   DIR/<user>.password   the password alone, for that client's password_file (mode 600)
#   DIR/passwd            mosquitto's password_file: every user of DIR, hashed (mosquitto_passwd -U)
#
# Run it again with more users to add them: existing passwords are kept, the passwd file is
# rebuilt from all of them. Delete DIR/<user>.password and run again to change one. Passwords
# never appear on a command line (mosquitto_passwd -b would show them to `ps`).
set -euo pipefail

dir=passwords
users=()
while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:?--dir needs a directory}"; shift 2 ;;
    -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64 ;;
    -*) echo "make-passwords.sh: unknown option $1" >&2; exit 64 ;;
    *) users+=("$1"); shift ;;
  esac
done
command -v mosquitto_passwd >/dev/null || { echo "make-passwords.sh: needs mosquitto_passwd (apt install mosquitto)" >&2; exit 69; }

umask 077
mkdir -p "$dir"
for user in "${users[@]}"; do
  # The user name is also the node's topic level in the ACL (%u): no wildcards or slashes.
  [[ "$user" =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "make-passwords.sh: bad user name '$user'" >&2; exit 64; }
  if [ ! -f "$dir/$user.password" ]; then
    openssl rand -base64 33 | tr -d '\n/+=' > "$dir/$user.password"
    echo "made $dir/$user.password"
  fi
done

plain=$(mktemp "$dir/.passwd.XXXXXX")
trap 'rm -f "$plain"' EXIT
for file in "$dir"/*.password; do
  [ -e "$file" ] || continue
  printf '%s:%s\n' "$(basename "$file" .password)" "$(cat "$file")" >> "$plain"
done
mosquitto_passwd -U "$plain"
mv "$plain" "$dir/passwd"
trap - EXIT
echo "wrote $dir/passwd ($(wc -l < "$dir/passwd") users)"
