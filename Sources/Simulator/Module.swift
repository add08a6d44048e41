/// Placeholder until the module lands.
enum SimulatorModule {}
