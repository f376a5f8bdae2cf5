/// The one platform question of the core, asked here once: whether this
/// build has the host's fast path (the block step, its shortcuts and the
/// vector forms of FastPath/), or is a microcontroller's (Embedded Swift on
/// 32-bit Arm or RISC-V: no vector unit, an image measured in kilobytes),
/// which keeps the one general form of each rule.
///
/// Rules ask ``hasFastPath``, a constant the compiler folds, so a rule reads
/// the same on both and its host-only branch costs a microcontroller nothing.
/// The files of FastPath/ carry the condition itself, once each.
@usableFromInline
internal enum Platform {
    #if hasFeature(Embedded) && (arch(arm) || arch(riscv32))
    @_alwaysEmitIntoClient @inline(__always) static var hasFastPath: Bool { false }
    #else
    @_alwaysEmitIntoClient @inline(__always) static var hasFastPath: Bool { true }
    #endif
}
