// SPDX-License-Identifier: Apache-2.0
// The libc-only adapters moved to AgentPOSIX so that agentctl need not link AgentSystem's C
// libraries; re-exported so every `import AgentSystem` still sees them unchanged.
@_exported import AgentPOSIX
