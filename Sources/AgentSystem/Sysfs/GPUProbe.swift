// SPDX-License-Identifier: Apache-2.0
/// One GPU the machine has, for `Resources=gpu` and `agentctl resources`.
public struct GPU: Sendable, Hashable, Codable {
    /// `card0` (a DRM card) or `nvidia0` (an NVIDIA device node).
    public var name: String
    /// The kernel driver (`amdgpu`, `i915`, `xe`, `nouveau`, `nvidia`), or nil when unknown.
    public var driver: String?
    /// Where it was found: the DRM card's sysfs directory or the device node.
    public var path: String

    public init(name: String, driver: String?, path: String) {
        self.name = name
        self.driver = driver
        self.path = path
    }
}

/// Finds the machine's GPUs:
/// - DRM cards `SYSFS/class/drm/cardN` (connector entries such as `card0-HDMI-A-1` and render
///   nodes `renderD128` are not cards), the driver being the basename of the
///   `cardN/device/driver` link when there is one;
/// - NVIDIA device nodes `DEV/nvidiaN` (not `nvidiactl`, `nvidia-uvm`, `nvidia-modeset`), which
///   exist without a DRM card when `nvidia-drm` is not loaded (headless compute machines). When
///   some DRM card already has the `nvidia` driver, the nodes are those same GPUs and are not
///   listed again.
///
/// Display-only DRM drivers are not GPUs a job can use and are left out: the firmware boot
/// framebuffer (`simple-framebuffer`, `simpledrm`, `efi-framebuffer`), virtual test devices
/// (`vkms`, `vgem`), emulated VGA in virtual machines (`bochs-drm`, `cirrus`, `cirrus-qemu`,
/// `qxl`, `vboxvideo`) and server BMC graphics (`ast`, `mgag200`, `hibmc-drm`). A card whose driver
/// cannot be read is listed (a fake tree need not build the link).
public struct GPUProbe: Sendable {
    public let roots: KernelRoots

    /// DRM drivers that only scan out a framebuffer; see the type's documentation.
    public static let displayOnlyDrivers: Set<String> = [
        "simple-framebuffer", "simpledrm", "efi-framebuffer", "vkms", "vgem",
        "bochs-drm", "bochs", "cirrus", "cirrus-qemu", "qxl", "vboxvideo", "ast", "mgag200", "hibmc-drm",
    ]

    public init(roots: KernelRoots = .system) {
        self.roots = roots
    }

    /// Every usable GPU: DRM cards in card-number order, then NVIDIA nodes in number order.
    public func probe() -> [GPU] {
        var gpus: [GPU] = []
        for (_, name) in Self.numbered(SmallFile.entries(roots.drmDirectory), prefix: "card") {
            let path = KernelRoots.join(roots.drmDirectory, name)
            let driver = SmallFile.linkTargetBasename(path + "/device/driver")
            if let driver, Self.displayOnlyDrivers.contains(driver) { continue }
            gpus.append(GPU(name: name, driver: driver, path: path))
        }
        guard !gpus.contains(where: { $0.driver == "nvidia" }) else { return gpus }
        for (_, name) in Self.numbered(SmallFile.entries(roots.dev), prefix: "nvidia") {
            gpus.append(GPU(name: name, driver: "nvidia", path: roots.devPath(name)))
        }
        return gpus
    }

    /// Whether the machine has at least one usable GPU.
    public func hasGPU() -> Bool { !probe().isEmpty }

    /// Names that are `prefix` followed by decimal digits only, with their number, sorted by it.
    static func numbered(_ names: [String], prefix: String) -> [(Int, String)] {
        names.compactMap { name -> (Int, String)? in
            guard name.hasPrefix(prefix) else { return nil }
            let digits = name.dropFirst(prefix.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let number = Int(digits) else { return nil }
            return (number, name)
        }.sorted { $0.0 < $1.0 }
    }
}
