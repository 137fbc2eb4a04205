#!/bin/bash
/usr/bin/python3 -X importtime -c 'import socket, argparse, hashlib, random, struct, signal' 2>&1 | sort -t'|' -k2 -n | tail -15
t() { local s=${EPOCHREALTIME/./}; "$@" >/dev/null 2>&1; local e=${EPOCHREALTIME/./}; echo "$(( (e - s) / 1000 )) ms: $*"; }
t /usr/bin/python3 -S -c 'import socket, struct, signal, time'
t /usr/bin/python3 -S -c 'import socket, struct, signal, time, sys'
t /usr/bin/python3 -I -c 'import socket, struct, signal, time, sys'
