// Command cmp-bridge presents a config management plugin served over TCP as
// a unix socket in Argo CD's plugin directory, so a released repo-server can
// use it like a sidecar:
//
//	cmp-bridge --socket /home/argocd/cmp-server/plugins/my-plugin-v1.0.sock --target my-plugin.argocd.svc:8080
//
// Turned around, it is the network front of a plugin whose server listens on
// a unix socket (argocd-cmp-server in the plugin's own pod):
//
//	cmp-bridge --listen :8080 --target-socket /home/argocd/cmp-server/plugins/my-plugin-v1.0.sock
package main

import "github.com/cmp-conformance/cmp-conformance/plugins/service/bridge"

func main() {
	bridge.Main("cmp-bridge", `cmp-bridge forwards a config management plugin's gRPC connections, byte for byte.

  repo-server side:  cmp-bridge --socket <plugins dir>/<name>-<version>.sock --target <service>:<port>
  service side:      cmp-bridge --listen :<port> --target-socket <argocd-cmp-server's socket>`, nil)
}
