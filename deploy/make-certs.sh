#!/usr/bin/env bash
# Makes a private CA and the certificates a Whereabouts install needs, with openssl:
#   ca.crt ca.key                 the CA (keep ca.key off the server once you are done)
#   broker.crt broker.key         mosquitto's server certificate, for the names given by --broker
#   <client>.crt <client>.key     one client certificate per node, and one for the aggregator
#
# usage: make-certs.sh [--dir DIR] [--days N] --broker NAME[,NAME...] [--aggregator USER] NODE...
#
# Run it again with more node names to add Pis later: existing keys and certificates are kept,
# and new ones are signed by the same CA. A client certificate's common name is the MQTT user
# name (the node's name), so the broker's ACL and the certificate name the same party.
set -euo pipefail

dir=certs
days=1825
brokers=""
aggregator=whereabouts-aggregator
clients=()

usage() { sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 64; }

while [ $# -gt 0 ]; do
  case "$1" in
    --dir) dir="${2:?--dir needs a directory}"; shift 2 ;;
    --days) days="${2:?--days needs a number}"; shift 2 ;;
    --broker) brokers="${2:?--broker needs host names or addresses}"; shift 2 ;;
    --aggregator) aggregator="${2:?--aggregator needs a user name}"; shift 2 ;;
    -h|--help) usage ;;
    -*) echo "make-certs.sh: unknown option $1" >&2; usage ;;
    *) clients+=("$1"); shift ;;
  esac
done
[ -n "$brokers" ] || { echo "make-certs.sh: --broker NAME is required (the host name the nodes connect to)" >&2; usage; }
[[ "$days" =~ ^[0-9]+$ ]] || { echo "make-certs.sh: --days must be a number" >&2; exit 64; }

# A name becomes an MQTT topic level and a file name: no wildcards, slashes or spaces.
for name in "$aggregator" "${clients[@]}"; do
  [[ "$name" =~ ^[A-Za-z0-9_.-]+$ ]] || { echo "make-certs.sh: bad name '$name' (letters, digits, . _ - only)" >&2; exit 64; }
done

mkdir -p "$dir"
umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

new_key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1" 2>/dev/null; }

if [ ! -f "$dir/ca.key" ]; then
  new_key "$dir/ca.key"
  openssl req -x509 -new -key "$dir/ca.key" -sha256 -days "$days" -subj "/CN=Whereabouts CA" \
    -addext "basicConstraints=critical,CA:TRUE,pathlen:0" \
    -addext "keyUsage=critical,keyCertSign,cRLSign" -out "$dir/ca.crt"
  echo "made $dir/ca.crt"
fi

# sign NAME USAGE [SAN]: a key (kept if present) and a certificate signed by the CA.
sign() {
  local name=$1 usage=$2 san=${3:-}
  [ -f "$dir/$name.crt" ] && { echo "kept $dir/$name.crt"; return; }
  [ -f "$dir/$name.key" ] || new_key "$dir/$name.key"
  openssl req -new -key "$dir/$name.key" -subj "/CN=$name" -out "$work/$name.csr"
  {
    echo "basicConstraints=critical,CA:FALSE"
    echo "keyUsage=critical,digitalSignature,keyEncipherment"
    echo "extendedKeyUsage=$usage"
    [ -n "$san" ] && echo "subjectAltName=$san"
  } > "$work/$name.ext"
  openssl x509 -req -in "$work/$name.csr" -CA "$dir/ca.crt" -CAkey "$dir/ca.key" -CAcreateserial \
    -sha256 -days "$days" -extfile "$work/$name.ext" -out "$dir/$name.crt" 2>/dev/null
  echo "made $dir/$name.crt"
}

san=""
IFS=, read -ra names <<< "$brokers"
for n in "${names[@]}"; do
  if [[ "$n" =~ ^[0-9.]+$ || "$n" == *:* ]]; then san+="${san:+,}IP:$n"; else san+="${san:+,}DNS:$n"; fi
done
sign broker serverAuth "$san"
sign "$aggregator" clientAuth
for node in "${clients[@]}"; do sign "$node" clientAuth; done

# Certificates are public; keys stay private to their owner (chown them when you install).
chmod 644 "$dir"/*.crt
