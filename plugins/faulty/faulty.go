// Package faulty is the program of the plugin that misbehaves on request.
package faulty

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// FailMessage is what the failing mode prints on stderr: a check expects to
// find it in the error Argo CD shows the user.
const FailMessage = "cmp-faulty: the dynamic command fails on purpose"

// Mode reads the "mode" parameter from ARGOCD_APP_PARAMETERS.
func Mode(parameters string) string {
	var params []struct {
		Name   string  `json:"name"`
		String *string `json:"string"`
	}
	if json.Unmarshal([]byte(parameters), &params) != nil {
		return ""
	}
	for _, p := range params {
		if p.Name == "mode" && p.String != nil {
			return *p.String
		}
	}
	return ""
}

// Announce misbehaves as mode asks.
func Announce(mode string, stdout, stderr io.Writer) error {
	switch mode {
	case "fail":
		fmt.Fprintln(stderr, FailMessage)
		return errors.New("failing on purpose")
	case "invalid-json":
		_, err := fmt.Fprintln(stdout, "this is not JSON")
		return err
	case "nameless":
		_, err := fmt.Fprintln(stdout, `[{"title":"NO NAME","tooltip":"an announcement without a name","string":"x"}]`)
		return err
	}
	_, err := fmt.Fprintln(stdout, "[]")
	return err
}
