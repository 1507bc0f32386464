// SPDX-License-Identifier: Apache-2.0
import AgentSystem

/// "run chmod +x …" and "install the plugin" work as written: the directories of plugins that
/// refused job files name are watched, and a change there checks those files again.
extension Agent {
    func startPluginWatch() {
        do {
            pluginWatch = try PluginDirectoryWatch(loop: loop) { [unowned self] in
                self.logChanges([self.config.revalidateFailedFiles()].filter { !$0.isEmpty })
                // A directory created or removed may change what can be watched.
                self.watchPluginsNamedInErrors()
            }
        } catch {
            log.warning("cannot watch plugin directories (\(error)): a plugin installed or made "
                + "executable after its job was refused is noticed on SIGHUP")
        }
    }

    func watchPluginsNamedInErrors() {
        pluginWatch?.watch(plugins: config.registry.pluginsNamedInErrors)
    }
}
