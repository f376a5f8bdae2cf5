public enum EmulatorPlaceholder {}
