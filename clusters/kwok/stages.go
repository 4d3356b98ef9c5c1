package kwok

import (
	"bytes"
	"embed"
)

// The kwok Stages the cluster runs, passed to kwokctl as further documents
// of its configuration file. kwokctl installs its own default node and pod
// stages only when that file has no Stage, so kwok-defaults.yaml carries
// them; controllers.yaml simulates the controllers whose status Argo CD's
// health checks read (an ingress controller, a cloud load balancer, a volume
// provisioner).
//
//go:embed stages/kwok-defaults.yaml stages/controllers.yaml
var stageFiles embed.FS

// stageFileNames in the order they are written.
var stageFileNames = []string{"stages/kwok-defaults.yaml", "stages/controllers.yaml"}

// stages returns the Stage documents, each preceded by a "---" line.
func stages() []byte {
	var out bytes.Buffer
	for _, name := range stageFileNames {
		data, err := stageFiles.ReadFile(name)
		if err != nil {
			panic(err) // embedded: cannot happen
		}
		out.WriteString("---\n")
		out.Write(data)
		if !bytes.HasSuffix(data, []byte("\n")) {
			out.WriteString("\n")
		}
	}
	return out.Bytes()
}
