package main

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/pkg/controller/clusterroleaggregation"
)

// startRoleAggregation runs the one kube-controller-manager controller that RBAC tests need: it fills the
// aggregated ClusterRoles (admin, edit, view, …), which are empty until it runs. It stops with ctx. It returns
// once "view" has its rules, so a RoleBinding to it works as soon as the cluster is reported ready.
func startRoleAggregation(ctx context.Context, cfg *rest.Config) error {
	client, err := kubernetes.NewForConfig(rest.AddUserAgent(rest.CopyConfig(cfg), "clusterrole-aggregation"))
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	controller := clusterroleaggregation.NewClusterRoleAggregation(factory.Rbac().V1().ClusterRoles(), client.RbacV1())
	factory.Start(ctx.Done())
	go controller.Run(ctx, 1)

	err = wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true,
		func(ctx context.Context) (bool, error) {
			view, err := client.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
			return err == nil && len(view.Rules) > 0, nil
		})
	if err != nil {
		return fmt.Errorf("ClusterRole view was not aggregated: %w", err)
	}
	return nil
}
