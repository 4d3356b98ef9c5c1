package faulty

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// RecordHang, when path is set, records in that file (appending) the
// process's pid, when the hang began and then, every 250 ms, that it is
// still alive, so the last line says when it was stopped, to a quarter
// second, whatever the signal (Go's CommandContext kills with SIGKILL, which
// no handler sees). The plugin's own clock: load on the machine does not
// skew it. The lines are "pid N", "started UNIXNANO", "alive UNIXNANO".
func RecordHang(path string) {
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "recording the hang:", err)
		return
	}
	fmt.Fprintf(f, "pid %d\nstarted %d\n", os.Getpid(), time.Now().UnixNano())
	go func() {
		for range time.Tick(250 * time.Millisecond) {
			fmt.Fprintf(f, "alive %d\n", time.Now().UnixNano())
		}
	}()
}

// RecordStart appends "started UNIXNANO" to path, RecordHang's line: when a
// command that does not hang began (DISC-009's other application).
func RecordStart(path string) error {
	return RecordLine(path, fmt.Sprintf("started %d", time.Now().UnixNano()))
}

// RecordLine appends line to the record at path.
func RecordLine(path, line string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintln(f, line)
	return errors.Join(werr, f.Close())
}

// HangBegun says whether the hang RecordHang records at path has begun.
func HangBegun(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(data), "\nstarted ")
}
