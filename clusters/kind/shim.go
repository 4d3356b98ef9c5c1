package kind

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// kind's library starts nodes with `docker run --privileged` and reaches them
// with `docker exec --privileged`, through the docker found on PATH; it has
// no other seam. Where the host cannot grant --privileged (Privilege), a
// shim first on PATH puts Privilege.Flags in its place on run and create,
// and drops it on exec, where the node's capabilities already apply. The
// node image's own entrypoint makes the cgroup mounts writable
// (fixtures/nodeimage). Every other command passes through unchanged.

// shimScript is the shim for the real CLI at real, with flags in place of
// --privileged.
func shimScript(real string, flags []string) string {
	quoted := make([]string, len(flags))
	for i, f := range flags {
		quoted[i] = shellQuote(f)
	}
	return fmt.Sprintf(`#!/bin/sh
# Written by cmp-conformance (clusters/kind/shim.go): this host cannot run
# --privileged containers, so kind's nodes get the equivalent flags instead.
real=%s
sub=
for a in "$@"; do
  case "$a" in -*) ;; *) sub=$a; break ;; esac
done
first=1
for a in "$@"; do
  if [ "$first" = 1 ]; then set --; first=0; fi
  if [ "$a" = --privileged ]; then
    case "$sub" in
      run|create) set -- "$@" %s ;;
    esac
    continue
  fi
  set -- "$@" "$a"
done
exec "$real" "$@"
`, shellQuote(real), strings.Join(quoted, " "))
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

var shimOnce struct {
	sync.Mutex
	dir string
}

// installShim writes the shim for cli into dir and puts dir first on this
// process's PATH, once per process: kind looks the CLI up on every command.
func installShim(dir, cli string, flags []string) error {
	shimOnce.Lock()
	defer shimOnce.Unlock()
	if shimOnce.dir != "" {
		return nil
	}
	real, err := exec.LookPath(cli)
	if err != nil {
		return fmt.Errorf("finding %s: %w", cli, err)
	}
	if real, err = filepath.Abs(real); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, cli), []byte(shimScript(real, flags)), 0o755); err != nil {
		return fmt.Errorf("writing the %s shim for kind's unprivileged nodes: %w", cli, err)
	}
	shimOnce.dir = dir
	return os.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}
