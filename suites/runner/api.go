// Package runner holds what a run of the suite needs around the checks: a
// logged-in connection to the environment's Argo CD, the DSL environment the
// checks see, and the report's provenance, environment and writing. The
// cmp-conformance binary and the certify library (suites/certify) share it.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

	"github.com/argoproj/argo-cd/v3/pkg/apiclient"
	applicationpkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/application"
	repositorypkg "github.com/argoproj/argo-cd/v3/pkg/apiclient/repository"
	"k8s.io/client-go/kubernetes"

	"github.com/cmp-conformance/cmp-conformance/fixtures/dsl"
	"github.com/cmp-conformance/cmp-conformance/fixtures/environment"
	"github.com/cmp-conformance/cmp-conformance/fixtures/kube"
	"github.com/cmp-conformance/cmp-conformance/fixtures/toolchain"
)

// API is a logged-in connection to Argo CD's API. Argo CD's client holds one
// connection and never redials it: after the server restarted (an upgrade
// hop), Connect again.
type API struct {
	Apps   applicationpkg.ApplicationServiceClient
	Repos  repositorypkg.RepositoryServiceClient
	Token  string
	closer io.Closer
}

// Connect logs in as admin and opens the application and repository clients.
func Connect(ctx context.Context, env *environment.Environment) (*API, error) {
	token, err := env.ArgoCD.Login(ctx)
	if err != nil {
		return nil, err
	}
	client, err := apiclient.NewClient(&apiclient.ClientOptions{ServerAddr: env.ArgoCD.ServerAddr, PlainText: true,
		AuthToken: token, ConfigPath: filepath.Join(env.Dir, "argocd-cli-config")})
	if err != nil {
		return nil, fmt.Errorf("argo CD API client: %w", err)
	}
	closer, apps, err := client.NewApplicationClient()
	if err != nil {
		return nil, fmt.Errorf("argo CD application client: %w", err)
	}
	reposCloser, repos, err := client.NewRepoClient()
	if err != nil {
		closer.Close()
		return nil, fmt.Errorf("argo CD repository client: %w", err)
	}
	return &API{Apps: apps, Repos: repos, Token: token, closer: closers{closer, reposCloser}}, nil
}

// Close closes the API's connections.
func (a *API) Close() error { return a.closer.Close() }

// closers closes each of its members.
type closers []io.Closer

func (cs closers) Close() error {
	var errs []error
	for _, c := range cs {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}

// DSL is the environment as the checks see it, through api.
func DSL(env *environment.Environment, api *API) (*dsl.Env, error) {
	kc, err := kube.NewClient(env.Cluster.REST)
	if err != nil {
		return nil, err
	}
	cs, err := kubernetes.NewForConfig(env.Cluster.REST)
	if err != nil {
		return nil, err
	}
	return dsl.NewEnv(dsl.Env{Apps: api.Apps, Repos: api.Repos, Kube: kc, Clientset: cs, Git: env.Git,
		ArgoCDNamespace: env.ArgoCD.Namespace, ArgoCDVersion: env.Tools.ArgoCDVersion, KubernetesVersion: env.Cluster.KubernetesVersion,
		CLIPath: env.Tools.Binaries[toolchain.ArgoCD].Path, Services: env.ArgoCD, PluginFiles: env.ArgoCD, Discovery: env.ArgoCD,
		ServerURL: "http://" + env.ArgoCD.ServerAddr, Token: api.Token}), nil
}
