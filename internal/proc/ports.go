package proc

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// CheckPortsFree tries to listen on each address of ports (purpose ->
// "127.0.0.1:PORT") and reports every one that is taken in a single error,
// naming the purpose and, when /proc tells, the process holding it.
func CheckPortsFree(ports map[string]string) error {
	purposes := make([]string, 0, len(ports))
	for purpose := range ports {
		purposes = append(purposes, purpose)
	}
	slices.SortFunc(purposes, func(a, b string) int {
		return strings.Compare(ports[a]+"\x00"+a, ports[b]+"\x00"+b)
	})
	var errs []error
	for _, purpose := range purposes {
		addr := ports[purpose]
		l, err := net.Listen("tcp", addr)
		if err == nil {
			if err := l.Close(); err != nil {
				errs = append(errs, fmt.Errorf("releasing port %s (%s) after checking it: %w", addr, purpose, err))
			}
			continue
		}
		if !errors.Is(err, syscall.EADDRINUSE) {
			errs = append(errs, fmt.Errorf("checking port %s (%s): %w", addr, purpose, err))
			continue
		}
		owner := ""
		if pid, name := portOwner(addr); pid > 0 {
			owner = fmt.Sprintf(" by pid %d (%s)", pid, name)
		}
		errs = append(errs, fmt.Errorf("port %s (%s) is already in use%s; stop that process or choose other ports with --port-base", addr, purpose, owner))
	}
	return errors.Join(errs...)
}

// portOwner finds, best effort, a process holding a socket bound to addr's
// port: the socket's inode from /proc/net/tcp{,6}, then the process with an
// fd linking to it. It returns 0 when not found (e.g. another user's process).
func portOwner(addr string) (pid int, name string) {
	_, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, ""
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return 0, ""
	}
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		socketInodes(f, port, inodes)
	}
	if len(inodes) == 0 {
		return 0, ""
	}
	pids, err := listPIDs()
	if err != nil {
		return 0, ""
	}
	for _, pid := range pids {
		fdDir := fmt.Sprintf("/proc/%d/fd", pid)
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			link, err := os.Readlink(fdDir + "/" + fd.Name())
			if err != nil || !strings.HasPrefix(link, "socket:[") {
				continue
			}
			if inodes[strings.TrimSuffix(strings.TrimPrefix(link, "socket:["), "]")] {
				return pid, procName(pid)
			}
		}
	}
	return 0, ""
}

// socketInodes adds to inodes the inode of each listening socket in a
// /proc/net/tcp-format file whose local port is port.
func socketInodes(file string, port int, inodes map[string]bool) {
	f, err := os.Open(file)
	if err != nil {
		return
	}
	defer f.Close()
	const listen = "0A" // TCP_LISTEN in the "st" column
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
		fields := strings.Fields(sc.Text())
		if len(fields) < 10 || fields[3] != listen {
			continue
		}
		_, hexPort, ok := strings.Cut(fields[1], ":")
		if !ok {
			continue
		}
		if p, err := strconv.ParseUint(hexPort, 16, 16); err == nil && int(p) == port && fields[9] != "0" {
			inodes[fields[9]] = true
		}
	}
}
