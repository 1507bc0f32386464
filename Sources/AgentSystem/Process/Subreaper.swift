// SPDX-License-Identifier: Apache-2.0
import CShim

/// The agent as a child subreaper: processes a plugin orphans are reparented to the agent (not
/// to PID 1), so they stay inside its reach and are reaped by it, run by run.
public enum Subreaper {
    @discardableResult
    public static func become() -> Bool {
        cshim_set_child_subreaper() == 0
    }
}
