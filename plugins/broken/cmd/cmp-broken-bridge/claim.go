package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	pluginclient "github.com/argoproj/argo-cd/v3/cmpserver/apiclient"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/types/known/emptypb"
)

// standIn is what the claim-when-down bridge answers with while its service
// cannot be dialed: a plugin server of its own, in this process, that
// claims every repository Argo CD asks about and fails every render. A
// bridge that keeps its plugin's applications from falling to other
// plugins during an outage does this; it takes every other application
// with them, those no plugin claims included.
type standIn struct {
	ln *bufconn.Listener
}

// downMessage is the stand-in's answer to a render: what an application it
// claimed shows.
const downMessage = "cmp-broken-bridge: the plugin service is down, and its bridge claims every repository until it is back"

func newStandIn() *standIn {
	ln := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	pluginclient.RegisterConfigManagementPluginServiceServer(srv, claimAll{})
	go func() { _ = srv.Serve(ln) }()
	return &standIn{ln: ln}
}

// connect is a connection to the stand-in, for a client whose dial to the
// service failed with cause.
func (s *standIn) connect(ctx context.Context, cause error) (net.Conn, error) {
	c, err := s.ln.DialContext(ctx)
	if err != nil {
		return nil, fmt.Errorf("the stand-in for a service that is down (%v): %w", cause, err)
	}
	return c, nil
}

// claimAll is the stand-in's plugin server.
type claimAll struct {
	pluginclient.UnimplementedConfigManagementPluginServiceServer
}

func (claimAll) CheckPluginConfiguration(context.Context, *emptypb.Empty) (*pluginclient.CheckPluginConfigurationResponse, error) {
	return &pluginclient.CheckPluginConfigurationResponse{IsDiscoveryConfigured: true}, nil
}

func (claimAll) MatchRepository(s pluginclient.ConfigManagementPluginService_MatchRepositoryServer) error {
	if err := drain(s.Recv); err != nil {
		return err
	}
	return s.SendAndClose(&pluginclient.RepositoryResponse{IsSupported: true, IsDiscoveryEnabled: true})
}

func (claimAll) GenerateManifest(s pluginclient.ConfigManagementPluginService_GenerateManifestServer) error {
	if err := drain(s.Recv); err != nil {
		return err
	}
	return status.Error(codes.Unavailable, downMessage)
}

func (claimAll) GetParametersAnnouncement(s pluginclient.ConfigManagementPluginService_GetParametersAnnouncementServer) error {
	if err := drain(s.Recv); err != nil {
		return err
	}
	return status.Error(codes.Unavailable, downMessage)
}

// drain reads a client stream (the repository's archive) to its end.
func drain[T any](recv func() (T, error)) error {
	for {
		if _, err := recv(); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}
