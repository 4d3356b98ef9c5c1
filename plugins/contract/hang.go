package contract

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/cmp-conformance/cmp-conformance/plugins/faulty"
)

// Hang is Find's answer to a marker that says "hang RECORD" (DISC-009): the
// command has printed a match and must now never exit by itself, as a
// discovery script stuck on a network call would. Its caller hangs
// (HangWithChild), so that a check can see that Argo CD stopped it and
// what it started.
type Hang struct{ Record string }

func (h *Hang) Error() string { return "asked to hang, recording in " + h.Record }

// HangChildArg is the subcommand a hanging command runs its child with.
const HangChildArg = "hang-child"

// HangLimit ends a hang nothing stopped, so a run whose Argo CD failed to
// stop it leaves nothing running for long.
const HangLimit = 2 * time.Minute

// ChildRecord is where the child of the hang recorded in record records.
func ChildRecord(record string) string { return record + ".child" }

// HangWithChild starts a child of the running program (HangChildArg,
// ChildRecord(h.Record)), which records its life there, records this
// process's life in h.Record, and sleeps until killed. With escape the
// child starts a session of its own, out of reach of a kill of the
// command's process group: a plugin that leaves a process behind (a
// witness). The child's output goes nowhere, so the command's pipes close
// when the command dies.
func HangWithChild(h *Hang, escape bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	child := exec.Command(self, HangChildArg, ChildRecord(h.Record))
	child.SysProcAttr = &syscall.SysProcAttr{Setsid: escape}
	if err := child.Start(); err != nil {
		return err
	}
	faulty.RecordHang(h.Record)
	time.Sleep(HangLimit)
	return errors.New("hung for " + HangLimit.String() + " and nothing stopped it")
}

// FindOrHang is Find, which hangs (HangWithChild) when the marker asks it
// to: the discovery program of cmp-contract and of its broken variants.
func FindOrHang(dir, marker string, getenv func(string) string, w io.Writer, escape bool) error {
	err := Find(dir, marker, getenv, w)
	var hang *Hang
	if errors.As(err, &hang) {
		return HangWithChild(hang, escape)
	}
	return err
}

// AwaitLimit bounds Await: inside the deadline argocd-server gives the
// repo-server to validate the awaiting application (25 s in the runtimes
// here, 60 s by Argo CD's default), with room for what comes before the
// command; about three times what the hanging application took to begin its
// hang on a machine that ran the catalogue 3.7 times slower than usual.
const AwaitLimit = 15 * time.Second

// Await is the find command of an application created while another's hangs
// (DISC-009). It records in record that it began ("started UNIXNANO"), waits
// up to limit for the hang recorded in hang to begin, and records "saw
// UNIXNANO" when it did, or "unseen" when it did not: Argo CD running one
// discovery at a time never lets the hang begin while this one runs.
// Recording the overlap itself, in the plugin, makes it independent of how
// fast the machine brings either application to its find command.
func Await(hang, record string, limit time.Duration) error {
	if err := faulty.RecordStart(record); err != nil {
		return err
	}
	line := "unseen"
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if faulty.HangBegun(hang) {
			line = fmt.Sprintf("saw %d", time.Now().UnixNano())
			break
		}
	}
	return faulty.RecordLine(record, line)
}

// HangChild is the child's program.
func HangChild(record string) {
	faulty.RecordHang(record)
	time.Sleep(HangLimit)
}
