#!/bin/sh
# Copies the aggregator's SQLite database with sqlite3's online backup (safe while the
# aggregator writes: the copy is one consistent snapshot, WAL included), checks the copy, and
# deletes copies older than KEEP_DAYS.
#
# usage: backup-database.sh [DATABASE [DIRECTORY [KEEP_DAYS]]]
#        defaults: /var/lib/whereabouts/whereabouts.db /var/lib/whereabouts-backup 14
set -eu

database=${1:-/var/lib/whereabouts/whereabouts.db}
directory=${2:-/var/lib/whereabouts-backup}
keep_days=${3:-14}

[ -f "$database" ] || { echo "backup-database.sh: no database at $database" >&2; exit 66; }
mkdir -p "$directory"
copy="$directory/whereabouts-$(date -u +%Y%m%dT%H%M%SZ).db"
# Written under a temporary name: a copy that exists under its final name is a good one.
sqlite3 "$database" ".timeout 10000" ".backup '$copy.partial'"
check=$(sqlite3 "$copy.partial" "PRAGMA integrity_check")
if [ "$check" != ok ]; then
  echo "backup-database.sh: the copy fails its integrity check: $check" >&2
  rm -f "$copy.partial"
  exit 65
fi
mv "$copy.partial" "$copy"
echo "backed up $database to $copy"
find "$directory" -name 'whereabouts-*.db' -type f -mtime +"$keep_days" -delete
