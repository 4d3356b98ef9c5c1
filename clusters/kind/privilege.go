package kind

import (
	"fmt"
	"math/bits"
	"os"
	"strconv"
	"strings"

	"github.com/prometheus/procfs"
)

// Privilege says whether kind's nodes can run as kind starts them
// (`docker run --privileged`), and what to run them with where they cannot.
// runc grants a privileged container every capability the kernel knows; where
// the host's capability bounding set lacks one (CAP_SYS_RESOURCE on sandboxed
// CI hosts), it refuses the container ("unable to apply caps: operation not
// permitted"), deep inside kind. Measured: ../shared/research/kind-offline.md.
type Privilege struct {
	// Missing names the capabilities the bounding set lacks (none: kind's
	// --privileged works).
	Missing []string
	// Flags replace --privileged on the node's `docker run` when Missing is
	// not empty: every capability the host has, and the rest of what
	// --privileged grants (devices, unmasked /proc and /sys, no labels).
	Flags []string
}

// Privileged says whether kind's --privileged nodes can run.
func (p Privilege) Privileged() bool { return len(p.Missing) == 0 }

// Explain says, for an error or a report, what was found and what is done.
func (p Privilege) Explain() string {
	if p.Privileged() {
		return "the capability bounding set is complete: kind's --privileged nodes can run"
	}
	return fmt.Sprintf("the capability bounding set lacks %s, so Docker cannot run kind's --privileged nodes here; they need %s instead",
		strings.Join(p.Missing, ", "), strings.Join(p.Flags, " "))
}

// capNames are the capabilities by number (linux/capability.h).
var capNames = []string{
	"CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_DAC_READ_SEARCH", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID",
	"CAP_SETPCAP", "CAP_LINUX_IMMUTABLE", "CAP_NET_BIND_SERVICE", "CAP_NET_BROADCAST", "CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_IPC_LOCK", "CAP_IPC_OWNER",
	"CAP_SYS_MODULE", "CAP_SYS_RAWIO", "CAP_SYS_CHROOT", "CAP_SYS_PTRACE", "CAP_SYS_PACCT", "CAP_SYS_ADMIN", "CAP_SYS_BOOT", "CAP_SYS_NICE",
	"CAP_SYS_RESOURCE", "CAP_SYS_TIME", "CAP_SYS_TTY_CONFIG", "CAP_MKNOD", "CAP_LEASE", "CAP_AUDIT_WRITE", "CAP_AUDIT_CONTROL", "CAP_SETFCAP",
	"CAP_MAC_OVERRIDE", "CAP_MAC_ADMIN", "CAP_SYSLOG", "CAP_WAKE_ALARM", "CAP_BLOCK_SUSPEND", "CAP_AUDIT_READ", "CAP_PERFMON", "CAP_BPF",
	"CAP_CHECKPOINT_RESTORE",
}

func capName(n int) string {
	if n < len(capNames) {
		return capNames[n]
	}
	return "CAP_" + strconv.Itoa(n)
}

// PrivilegeOf judges a capability bounding set (CapBnd) on a kernel whose
// last capability is lastCap (/proc/sys/kernel/cap_last_cap).
func PrivilegeOf(capBnd uint64, lastCap int) Privilege {
	var p Privilege
	all := uint64(1)<<(lastCap+1) - 1
	missing := all &^ capBnd
	if missing == 0 {
		return p
	}
	drop := []string{}
	for missing != 0 {
		n := bits.TrailingZeros64(missing)
		missing &^= 1 << n
		p.Missing = append(p.Missing, capName(n))
		drop = append(drop, strings.TrimPrefix(capName(n), "CAP_"))
	}
	p.Flags = []string{"--cap-add=ALL", "--cap-drop=" + strings.Join(drop, ","),
		"--security-opt", "systempaths=unconfined", "--security-opt", "label=disable",
		"--device-cgroup-rule=a *:* rwm", "--device", "/dev/kmsg", "--device", "/dev/fuse"}
	return p
}

// HostPrivilege reads this host's bounding set (this process's, which a
// sandbox bounds as it bounds the container runtime's) with procfs.
func HostPrivilege() (Privilege, error) {
	self, err := procfs.Self()
	if err != nil {
		return Privilege{}, err
	}
	st, err := self.NewStatus()
	if err != nil {
		return Privilege{}, fmt.Errorf("reading the capability bounding set: %w", err)
	}
	data, err := os.ReadFile("/proc/sys/kernel/cap_last_cap")
	if err != nil {
		return Privilege{}, fmt.Errorf("reading the kernel's last capability: %w", err)
	}
	last, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		return Privilege{}, fmt.Errorf("/proc/sys/kernel/cap_last_cap: %w", err)
	}
	return PrivilegeOf(st.CapBnd, last), nil
}
