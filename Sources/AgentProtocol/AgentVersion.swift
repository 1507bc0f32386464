// SPDX-License-Identifier: Apache-2.0
/// The version agentd and agentctl report; packaging reads it from here.
public enum AgentVersion {
    public static let string = "0.1.0"
}
