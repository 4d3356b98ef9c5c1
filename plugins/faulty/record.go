package faulty

import (
	"errors"
	"fmt"
	"os"
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
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, werr := fmt.Fprintf(f, "started %d\n", time.Now().UnixNano())
	return errors.Join(werr, f.Close())
}
