# Stand-ins for sudo, systemctl and systemd-run, sourced before docs/deployment.md's day by
# tests/test_office_day.py, where systemd is not running (a container) and nothing may be
# written outside the test's temporary folder. What they do is what systemd would, as far as
# the day relies on it; what they leave out is said below and in that test's docstring.
#   sudo [-u USER] CMD     runs CMD as this user (USER must be this user: nobody is switched to)
#   systemctl start UNIT   the unit file's ExecStart ($UNIT_DIR/UNIT.service) with the environment
#                          systemd would give it (systemd_standin.py: Environment=, then
#                          EnvironmentFile= read by legal_ai.config_env.parse_env_file); in the
#                          background in a session of its own (Type=simple); Type=forking: waits
#                          for the start command, then the main pid is PIDFile's first line.
#                          StateDirectory= and RuntimeDirectory= are made first; an enabled unit
#                          whose RequiredBy= names UNIT is started before it (Requires=).
#   systemctl stop UNIT    KillSignal to the main pid (KillMode=mixed) or its process group,
#                          waits for it to end (TimeoutStopSec, then SIGKILL); first stops what
#                          requires UNIT (its RequiredBy=, once enabled) unless
#                          --job-mode=ignore-dependencies; restart = stop + start.
#   systemctl enable [--now], daemon-reload, is-active [--quiet], show -p MainPID --value
#   systemd-run [--uid=USER] [--pipe --wait --quiet --collect] -p EnvironmentFile=F CMD
#                          CMD in the foreground with that environment.
# Not done: the sandbox ([Service]'s Protect*/Private*/ReadWritePaths: not applied), cgroups,
# Restart= (a unit that dies stays dead: the day fails), the journal (each unit's output goes
# to $STANDIN_DIR/UNIT.log). The working directory stands for `/`: $STANDIN_CWD.
# Needs: STANDIN_DIR STANDIN_CWD STANDIN_PYTHON STANDIN_HELPER STANDIN_STATE_ROOT
# STANDIN_RUNTIME_ROOT, and the day's UNIT_DIR.

_standin_facts() {
  STANDIN_STATE_ROOT=$STANDIN_STATE_ROOT STANDIN_RUNTIME_ROOT=$STANDIN_RUNTIME_ROOT \
    "$STANDIN_PYTHON" "$STANDIN_HELPER" "$@"
}

_standin_alive() { # PID: running (not ended, not a zombie)
  local state
  state=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

_standin_active() { # UNIT
  local pid
  pid=$(cat "$STANDIN_DIR/$1.pid" 2>/dev/null) || return 1
  _standin_alive "$pid"
}

_standin_requirers() { # UNIT: the units that require it (its RequiredBy=, once it is enabled)
  [ -e "$STANDIN_DIR/$1.enabled" ] || return 0
  local TYPE PIDFILE KILL_SIGNAL KILL_MODE STOP_TIMEOUT DIRS REQUIRED_BY ARGV ENVIRON
  eval "$(_standin_facts unit "$UNIT_DIR/$1.service")" || return 1
  printf '%s\n' "${REQUIRED_BY[@]}"
}

_standin_start() { # UNIT DEPS
  local unit=$1 deps=$2 other pid waited=0
  _standin_active "$unit" && return 0
  if [ "$deps" = 1 ]; then # Requires=: what an enabled unit's RequiredBy= links in
    for other in "$STANDIN_DIR"/*.enabled; do
      [ -e "$other" ] || continue
      other=$(basename "$other" .enabled)
      if _standin_requirers "$other" | grep -qx "$unit"; then
        _standin_start "$other" 1 || return 1
      fi
    done
  fi
  local TYPE PIDFILE KILL_SIGNAL KILL_MODE STOP_TIMEOUT DIRS REQUIRED_BY ARGV ENVIRON
  eval "$(_standin_facts unit "$UNIT_DIR/$unit.service")" || return 1
  [ "${#DIRS[@]}" -eq 0 ] || mkdir -p -m 750 "${DIRS[@]}"
  if [ "$TYPE" = forking ]; then
    (cd "$STANDIN_CWD" && exec env -i "${ENVIRON[@]}" "${ARGV[@]}") \
      </dev/null >>"$STANDIN_DIR/$unit.log" 2>&1 || {
      echo "systemctl: $unit failed to start (see $STANDIN_DIR/$unit.log)" >&2
      return 1
    }
    pid=$(head -n 1 "$PIDFILE" 2>/dev/null) || {
      echo "systemctl: $unit: no PIDFile $PIDFILE" >&2
      return 1
    }
  elif [ "$TYPE" = simple ]; then
    (cd "$STANDIN_CWD" && exec setsid env -i "${ENVIRON[@]}" "${ARGV[@]}") \
      </dev/null >>"$STANDIN_DIR/$unit.log" 2>&1 &
    pid=$!
  else
    echo "systemctl stand-in: Type=$TYPE is not implemented" >&2
    return 1
  fi
  echo "$pid" >"$STANDIN_DIR/$unit.pid"
}

_standin_stop() { # UNIT DEPS
  local unit=$1 deps=$2 other pid waited=0
  if [ "$deps" = 1 ]; then
    for other in $(_standin_requirers "$unit"); do
      _standin_stop "$other" 1 || return 1
    done
  fi
  _standin_active "$unit" || { rm -f "$STANDIN_DIR/$unit.pid"; return 0; }
  local TYPE PIDFILE KILL_SIGNAL KILL_MODE STOP_TIMEOUT DIRS REQUIRED_BY ARGV ENVIRON
  eval "$(_standin_facts unit "$UNIT_DIR/$unit.service")" || return 1
  pid=$(cat "$STANDIN_DIR/$unit.pid")
  if [ "$KILL_MODE" = control-group ]; then
    kill -s "$KILL_SIGNAL" -- "-$pid" 2>/dev/null || kill -s "$KILL_SIGNAL" "$pid"
  else
    kill -s "$KILL_SIGNAL" "$pid"
  fi
  while _standin_alive "$pid" && [ "$waited" -lt $((STOP_TIMEOUT * 10)) ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if _standin_alive "$pid"; then
    echo "systemctl: $unit did not stop in ${STOP_TIMEOUT}s: SIGKILL" >&2
    kill -s KILL -- "-$pid" 2>/dev/null || kill -s KILL "$pid"
  fi
  rm -f "$STANDIN_DIR/$unit.pid"
}

systemctl() {
  local verb=$1 deps=1 now=0 quiet=0 prop="" units=() unit
  shift
  while [ "$#" -gt 0 ]; do
    case $1 in
      --job-mode=ignore-dependencies) deps=0 ;;
      --now) now=1 ;;
      --quiet) quiet=1 ;;
      --value) ;;
      -p) prop=$2; shift ;;
      -*) echo "systemctl stand-in: option $1 is not implemented" >&2; return 1 ;;
      *) units+=("${1%.service}") ;;
    esac
    shift
  done
  case $verb in
    daemon-reload) ;;
    enable)
      for unit in "${units[@]}"; do
        [ -e "$UNIT_DIR/$unit.service" ] || { echo "Unit $unit.service not found." >&2; return 1; }
        : >"$STANDIN_DIR/$unit.enabled"
      done
      if [ "$now" = 1 ]; then
        for unit in "${units[@]}"; do _standin_start "$unit" "$deps" || return 1; done
      fi
      ;;
    start) for unit in "${units[@]}"; do _standin_start "$unit" "$deps" || return 1; done ;;
    stop) for unit in "${units[@]}"; do _standin_stop "$unit" "$deps" || return 1; done ;;
    restart)
      for unit in "${units[@]}"; do _standin_stop "$unit" "$deps" || return 1; done
      for unit in "${units[@]}"; do _standin_start "$unit" "$deps" || return 1; done
      ;;
    is-active)
      local all=0
      for unit in "${units[@]}"; do
        if _standin_active "$unit"; then
          [ "$quiet" = 1 ] || echo active
        else
          [ "$quiet" = 1 ] || echo inactive
          all=3
        fi
      done
      return "$all"
      ;;
    show)
      [ "$prop" = MainPID ] || { echo "systemctl stand-in: show -p $prop" >&2; return 1; }
      if _standin_active "${units[0]}"; then cat "$STANDIN_DIR/${units[0]}.pid"; else echo 0; fi
      ;;
    *) echo "systemctl stand-in: $verb is not implemented" >&2; return 1 ;;
  esac
}

systemd-run() {
  local props=() ENVIRON
  while [ "$#" -gt 0 ]; do
    case $1 in
      --uid=*) props+=("User=${1#--uid=}") ;;
      --pipe | --wait | --quiet | --collect) ;;
      -p) props+=("$2"); shift ;;
      --) shift; break ;;
      -*) echo "systemd-run stand-in: option $1 is not implemented" >&2; return 1 ;;
      *) break ;;
    esac
    shift
  done
  local args=()
  for prop in "${props[@]}"; do args+=(-p "$prop"); done
  eval "$(_standin_facts run "${args[@]}")" || return 1
  (cd "$STANDIN_CWD" && exec env -i "${ENVIRON[@]}" "$@")
}

sudo() {
  while [ "$#" -gt 0 ]; do
    case $1 in
      -u)
        [ "$2" = "$(id -un)" ] || { echo "sudo stand-in: cannot become $2" >&2; return 1; }
        shift 2
        ;;
      --) shift; break ;;
      -*) echo "sudo stand-in: option $1 is not implemented" >&2; return 1 ;;
      *) break ;;
    esac
  done
  "$@"
}
