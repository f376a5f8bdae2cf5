/// What the gesture layer (Sources/Gestures) asks of the pipeline beyond
/// ``ForcePipeline/process(scan:into:)``: a block fast path that it may take
/// wherever a scan-at-a-time step would decide nothing it needs to see.
extension ForcePipeline {
    /// The position last decided at an event: what ``centreOfPressure``
    /// gives while the force over its window is below the gate. Nil on a
    /// panel without cell positions, and before any event had one.
    @inlinable
    public var lastDecidedPosition: PlatePoint? {
        guard _decode.hasPositions else { return nil }
        return _pressure.last
    }

    /// The classifier's press state, read in place (``classifier`` hands
    /// out a copy of the whole classifier, a few hundred bytes, per read).
    @inlinable
    public var pressState: PressState { _classifier._state }

    /// The force over which ``centreOfPressure`` is decided from the window,
    /// newtons above the cells' tracked zeros (a quarter of the peek level).
    /// Inlined before any other inlining (`@_transparent`): a call would pass a copy of the whole pipeline.
    @_transparent
    public var positionGate: Float { _classifier._parameters.peek * CentreOfPressure.gateFraction }
}
