// Package nodegroupspec parses the upstream Cluster Autoscaler's node group
// command-line formats shared by the cloud providers: --nodes
// (`min:max:name`) and the provider prefix of --node-group-auto-discovery
// (`<provider>:<spec>`). Each provider interprets the name and the spec.
package nodegroupspec
