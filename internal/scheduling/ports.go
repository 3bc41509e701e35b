package scheduling

import (
	corev1 "k8s.io/api/core/v1"
)

// ReasonPorts is kube-scheduler's NodePorts failure reason.
const ReasonPorts = "node(s) didn't have free ports for the requested pod ports"

const bindAllHostIP = "0.0.0.0"

// HostPort is one host port a pod binds: the protocol, IP and port, with
// the defaults (TCP, 0.0.0.0) filled in.
type HostPort struct {
	// IP is the host IP; 0.0.0.0 binds all addresses.
	IP string
	// Protocol is TCP, UDP or SCTP.
	Protocol corev1.Protocol
	// Port is the host port number.
	Port int32
}

// PodHostPorts returns the host ports of the pod's app containers and
// sidecars (restartable init containers), as kube-scheduler collects them.
func PodHostPorts(pod *corev1.Pod) []HostPort {
	var out []HostPort
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			out = appendHostPorts(out, c.Ports)
		}
	}
	for i := range pod.Spec.Containers {
		out = appendHostPorts(out, pod.Spec.Containers[i].Ports)
	}
	return out
}

func appendHostPorts(out []HostPort, ports []corev1.ContainerPort) []HostPort {
	for _, p := range ports {
		if p.HostPort <= 0 {
			continue
		}
		hp := HostPort{IP: p.HostIP, Protocol: p.Protocol, Port: p.HostPort}
		if hp.IP == "" {
			hp.IP = bindAllHostIP
		}
		if hp.Protocol == "" {
			hp.Protocol = corev1.ProtocolTCP
		}
		out = append(out, hp)
	}
	return out
}

// Conflicts reports whether a and b cannot both be bound on one node: same
// protocol and port, and the same IP or either one binding 0.0.0.0.
func (a HostPort) Conflicts(b HostPort) bool {
	if a.Port != b.Port || a.Protocol != b.Protocol {
		return false
	}
	return a.IP == b.IP || a.IP == bindAllHostIP || b.IP == bindAllHostIP
}

// PortsConflict reports whether any of want conflicts with any of used.
func PortsConflict(want, used []HostPort) bool {
	for _, w := range want {
		for _, u := range used {
			if w.Conflicts(u) {
				return true
			}
		}
	}
	return false
}
