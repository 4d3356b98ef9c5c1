package proc

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// helperEnv switches the test binary into a helper that calls StopFromState,
// so the tests can stop processes from a process that did not start them.
const helperEnv = "PROC_TEST_STOP_FROM_STATE"

func TestMain(m *testing.M) {
	if mode := os.Getenv(orphanEnv); mode != "" {
		startAndDie(mode)
		return
	}
	if file := os.Getenv(helperEnv); file != "" {
		stopped, err := StopFromState(file, 5*time.Second)
		errText := ""
		if err != nil {
			errText = err.Error()
		}
		_ = json.NewEncoder(os.Stdout).Encode(helperResult{Stopped: stopped, Err: errText})
		return
	}
	m.Run()
}

type helperResult struct {
	Stopped []string
	Err     string
}

// helperOutput runs the test binary again as the helper that env=value
// selects (TestMain) and returns what it printed.
func helperOutput(t *testing.T, env, value string) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), env+"="+value)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("helper %s=%s: %v: %s", env, value, err, out)
	}
	return out
}

// stopFromStateInOtherProcess runs StopFromState in a re-executed test binary.
func stopFromStateInOtherProcess(t *testing.T, stateFile string) helperResult {
	t.Helper()
	out := helperOutput(t, helperEnv, stateFile)
	var res helperResult
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("helper output %q: %v", out, err)
	}
	return res
}

func shSpec(t *testing.T, name, script string, env ...string) Spec {
	t.Helper()
	return Spec{
		Name:    name,
		Path:    "/bin/sh",
		Args:    []string{"-c", script},
		Env:     append([]string{"PATH=" + os.Getenv("PATH")}, env...),
		LogPath: filepath.Join(t.TempDir(), "logs", name+".log"),
	}
}

func startT(t *testing.T, spec Spec) *Process {
	t.Helper()
	p, err := Start(spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Stop(time.Second) })
	return p
}

// statFields returns /proc/<pid>/stat from field 3 on, parsed independently
// of the package's own parser.
func statFields(pid int) []string {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil
	}
	s := string(data)
	return strings.Fields(s[strings.LastIndex(s, ")")+1:])
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	f := statFields(pid)
	return len(f) > 0 && f[0] != "Z"
}

// groupMembers lists running processes whose process group is pgid.
func groupMembers(t *testing.T, pgid int) []int {
	t.Helper()
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if f := statFields(pid); len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// waitLog waits until p's log contains s, i.e. the script reached that point.
func waitLog(t *testing.T, p *Process, logPath, s string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := WaitFor(ctx, p, fmt.Sprintf("%q in log", s), func(context.Context) error {
		data, err := os.ReadFile(logPath)
		if err != nil {
			return err
		}
		if !strings.Contains(string(data), s) {
			return fmt.Errorf("not yet")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
