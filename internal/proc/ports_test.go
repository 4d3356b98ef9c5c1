package proc

import (
	"fmt"
	"net"
	"os"
	"strings"
	"testing"
)

func TestCheckPortsFree(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	taken := l.Addr().String()
	free := freeAddr(t)

	if err := CheckPortsFree(map[string]string{"redis": free}); err != nil {
		t.Errorf("free port reported: %v", err)
	}

	err = CheckPortsFree(map[string]string{"argocd-server": taken, "redis": free})
	if err == nil {
		t.Fatal("taken port not reported")
	}
	t.Log(err)
	want := fmt.Sprintf("port %s (argocd-server) is already in use by pid %d (", taken, os.Getpid())
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "--port-base") {
		t.Errorf("err = %q, want it to contain %q", err, want)
	}
	if strings.Contains(err.Error(), "redis") {
		t.Errorf("free port reported: %q", err)
	}
}

func TestCheckPortsFreeReportsAll(t *testing.T) {
	var addrs []string
	for range 2 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		addrs = append(addrs, l.Addr().String())
	}
	err := CheckPortsFree(map[string]string{"a": addrs[0], "b": addrs[1]})
	if err == nil || !strings.Contains(err.Error(), addrs[0]+" (a)") || !strings.Contains(err.Error(), addrs[1]+" (b)") {
		t.Errorf("err = %v, want both ports", err)
	}
}
