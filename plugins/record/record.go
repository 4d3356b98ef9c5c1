// Package record writes the ConfigMap a reference plugin adds to what it
// renders, so that checks can read back from the cluster what the plugin
// received: one binaryData key holding base64 of the plugin's own bytes.
package record

import (
	"encoding/base64"
	"fmt"
	"io"
)

// Write writes the ConfigMap name with binaryData {key: data} as one YAML
// document, followed by a blank line.
//
// The blank line is there because of Argo CD: argocd-cmp-server trims the
// output's trailing newline, and the YAML splitter it then uses
// (k8s.io/apimachinery's YAMLReader over a 4096-byte bufio.Reader) drops a
// final, unterminated line whose length is a multiple of 4096 bytes (the
// same reader bug as helm/helm#32506). The base64 line is long and its length
// follows the record's size (the cluster's API versions, parameter values),
// so without the blank line a record of the wrong length lost its binaryData
// on its way to the cluster and a check read an empty record (session 38's
// ENV-001 failures). With it, the base64 line is never the last.
func Write(w io.Writer, name, key string, data []byte) error {
	_, err := fmt.Fprintf(w, "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\nbinaryData:\n  %s: %s\n\n",
		name, key, base64.StdEncoding.EncodeToString(data))
	return err
}
