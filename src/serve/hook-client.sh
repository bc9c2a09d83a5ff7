#!/bin/bash
# tapedeck's hook client for the http transport: the agent runs this for every
# hook (a bash start is ~3 ms; Node's is 50-100 ms). It hands the payload to the
# project's hook server, and records it in-process through the Node hook
# whenever the server cannot be trusted with it: no run file, a dead pid, a
# refused connection, a non-2xx answer, no answer in time. It always exits 0,
# and prints only what the agent is meant to read: retrieval's added context,
# named by an answer the server proved its own, printed only whole (else the
# Node hook is run, which prints it itself). Nothing else reaches the screen.
#
# usage: hook-client.sh PROVIDER RUN_FILE NODE HOOK_JS
#
# RUN_FILE (written by the server, 0600 under the user's 0700 tapedeck home)
# holds "PORT PID TOKEN REPLY". The pid check is what keeps a squatter out:
# another user can bind the port while our server is down, but cannot make
# `kill -0` succeed for a pid of theirs, and cannot write the run file. REPLY
# is never sent: an answer carrying it comes from the server that wrote it.
set +o posix
exec 2>/dev/null
# Byte lengths, not characters: Content-Length counts bytes.
LC_ALL=C
provider=$1 run=$2 node=$3 hook=$4
# Agents (Node, Bun) give hooks a socket as stdin, which /dev/stdin cannot open: read it, don't open it. The
# fork and exec of `cat` were a third of this client's time (~1.2 ms of a 1 KB hook); bash 5's `read -N` reads
# a socket or pipe in blocks (its `read -d` takes a system call per byte), but costs more than `cat` per byte
# past ~50 KB, so a payload over 32 KB has its rest read by `cat` (measured at 1 KB-2 MB). Bash 3.2 (macOS
# /bin/bash) has no -N; bash 4's block reads are not measured: both use `cat`. NUL bytes are dropped either way
# (JSON has none), and trailing newlines too, as `$(cat)` always did.
if ((BASH_VERSINFO[0] >= 5)); then
  IFS= read -r -N 32768 payload && payload+=$(cat)
  while [ "${payload: -1}" = $'\n' ]; do payload=${payload%?}; done
else
  payload=$(cat)
fi

record_here() {
  [ -f "$hook" ] && [ -x "$node" ] || exit 0
  printf '%s' "$payload" | "$node" "$hook" "$provider" --from-client
  exit 0
}

# Ours, not just present: where the tapedeck home is shared (TAPEDECK_HOME in /tmp, a group directory) another
# user could write a run file naming their port and a pid of ours, and have their text printed to the agent.
[ -f "$run" ] && [ ! -L "$run" ] && [ -O "$run" ] && [ ! -L "${run%/*}" ] && [ -O "${run%/*}" ] || record_here
read -r port pid token reply <"$run" || record_here
case "$port:$pid" in *[!0-9:]* | :* | *:) record_here ;; esac
kill -0 "$pid" || record_here
# A killed server that nobody has reaped yet is a zombie, for which `kill -0` still succeeds while its port
# may already be another user's: where init does not reap at once (a container's PID 1 that is the agent
# itself, 1.4-2.0 s for the init measured here), the payload and the token went to that squatter. Linux
# tells in /proc; macOS has none, and there launchd reaps an orphaned server as it dies.
if [ -r "/proc/$pid/stat" ]; then
  IFS= read -r state <"/proc/$pid/stat" || record_here
  case "${state##*) }" in Z* | X*) record_here ;; esac
fi
exec 3<>"/dev/tcp/127.0.0.1/$port" || record_here
printf 'POST /hook/%s HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nX-Tapedeck-Token: %s\r\nX-Tapedeck-Agent: %s\r\nContent-Length: %s\r\nConnection: close\r\n\r\n%s' \
  "$provider" "$port" "$token" "${CLAUDE_PID:-0}" "${#payload}" "$payload" >&3 || record_here
read -r -t 9 _proto status _rest <&3 || record_here
case "$status" in
  200) ;;
  2??) exit 0 ;;
  *) record_here ;;
esac

# Recorded. Output for the agent comes as the name of a file beside the run file (bash reads a socket one byte
# per system call, a regular file in blocks), with the reply header; headers are read with the same timeout.
name='' length='' proof='' ended=''
while IFS= read -r -t 9 line <&3; do
  line=${line%$'\r'}
  [ -z "$line" ] && ended=1 && break
  case "$line" in
    [Xx]-[Tt]apedeck-[Oo]utput:*) name=${line#*:} name=${name// /} ;;
    [Xx]-[Tt]apedeck-[Oo]utput-[Ll]ength:*) length=${line#*:} length=${length// /} ;;
    [Xx]-[Tt]apedeck-[Rr]eply:*) proof=${line#*:} proof=${proof// /} ;;
  esac
done
[ -n "$ended" ] && [ -n "$name" ] || exit 0
# A reply that is not this run's: whoever answered is not our server.
[ -n "$reply" ] && [ "$proof" = "$reply" ] || record_here
# Only a file of this run file's server, in its directory: a name is never a path.
case "$name" in "${run##*/}".*.out) ;; *) record_here ;; esac
case "$name" in */* | *[!A-Za-z0-9._-]*) record_here ;; esac
case "$length" in '' | *[!0-9]*) record_here ;; esac
[ "${#length}" -le 6 ] && [ "$length" -le 262144 ] || record_here
out=${run%/*}/$name
[ -f "$out" ] && [ ! -L "$out" ] && [ -O "$out" ] || record_here
IFS= read -r -d '' body <"$out"
# Printed only whole.
[ "${#body}" -eq "$length" ] || record_here
printf '%s' "$body"
exit 0
