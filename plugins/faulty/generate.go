package faulty

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cmp-conformance/cmp-conformance/plugins/plain"
)

// FaultFile, in the application folder, names the fault generate commits.
const FaultFile = "cmp-fault"

// Faults generate can commit.
const (
	// FaultHang prints nothing and never exits. With StopRecordEnv set, it
	// records in that file when it began to hang and when it got SIGTERM.
	FaultHang = "hang"
	// FaultCrash prints the first resource, then is killed by a signal, as
	// by the OOM killer.
	FaultCrash = "crash"
	// FaultInvalidYAML prints a valid resource, then YAML that does not parse.
	FaultInvalidYAML = "invalid-yaml"
	// FaultEmpty prints nothing and exits 0: a failing pipeline without
	// pipefail (argo-cd#15339).
	FaultEmpty = "empty"
	// FaultHuge prints more than Argo CD carries: one ConfigMap of
	// HugeBytes (one MiB over the gRPC limit the cmp-server is under).
	FaultHuge = "huge"
)

// GRPCMaxSizeEnv is the environment variable argocd-cmp-server reads its
// gRPC message limit from, in MiB (100 when unset); a plugin's commands
// inherit the cmp-server's environment, so the huge fault reads it too.
const GRPCMaxSizeEnv = "ARGOCD_GRPC_MAX_SIZE_MB"

// GRPCMaxSizeMB is the limit the reference faulty-generate plugin runs
// under (its sidecar's GRPCMaxSizeEnv; gRPC's own default), so that more
// than Argo CD carries is 5 MiB rather than 101: what FAULT-004 judges is
// Argo CD's answer to output over the limit, whatever the limit.
const GRPCMaxSizeMB = 4

// HugeBytes is the size of the huge fault's ConfigMap value under the
// limit named by GRPCMaxSizeEnv's value env ("" for the default).
func HugeBytes(env string) int {
	limit, err := strconv.Atoi(env)
	if err != nil || limit <= 0 {
		limit = 100
	}
	return (limit + 1) << 20
}

// ReadFault returns the fault dir's FaultFile names ("" for none).
func ReadFault(dir string) (string, error) {
	data, err := os.ReadFile(dir + "/" + FaultFile)
	if os.IsNotExist(err) {
		return "", nil
	}
	return strings.TrimSpace(string(data)), err
}

// StopRecordEnv is the plugin environment variable (an application's
// spec.source.plugin.env entry STOP_RECORD) naming the file a hanging
// generate records its start and its SIGTERM in.
const StopRecordEnv = "ARGOCD_ENV_STOP_RECORD"

// Generate renders dir like the plain plugin, or commits the fault its
// FaultFile names. hang and crash are given by the caller (they act on the
// process); the others are written to w.
func Generate(dir string, w io.Writer, hang, crash func()) error {
	fault, err := ReadFault(dir)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := plain.Generate(dir, &out); err != nil {
		return err
	}
	switch fault {
	case "":
		_, err := w.Write(out.Bytes())
		return err
	case FaultHang:
		hang()
		return nil
	case FaultCrash:
		if _, err := io.WriteString(w, FirstDocument(out.String())); err != nil {
			return err
		}
		crash()
		return nil
	case FaultEmpty:
		return nil
	case FaultInvalidYAML:
		_, err := io.WriteString(w, FirstDocument(out.String())+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: [unclosed\n")
		return err
	case FaultHuge:
		if _, err := io.WriteString(w, out.String()+"---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: huge\ndata:\n  huge: "); err != nil {
			return err
		}
		chunk := bytes.Repeat([]byte("x"), 1<<20)
		for i := 0; i < HugeBytes(os.Getenv(GRPCMaxSizeEnv))>>20; i++ {
			if _, err := w.Write(chunk); err != nil {
				return err
			}
		}
		_, err := io.WriteString(w, "\n")
		return err
	default:
		return fmt.Errorf("%s names an unknown fault %q (want %s, %s, %s, %s or %s)", FaultFile, fault, FaultHang, FaultCrash, FaultEmpty, FaultInvalidYAML, FaultHuge)
	}
}

// FirstDocument is the first non-empty document of a multi-document YAML
// stream, with its separator.
func FirstDocument(stream string) string {
	for _, d := range strings.Split(stream, "---\n") {
		if strings.TrimSpace(d) != "" {
			return "---\n" + d
		}
	}
	return ""
}
