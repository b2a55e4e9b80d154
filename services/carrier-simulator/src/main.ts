import { runService } from "@sms/service-runtime";
import { loadSimulatorConfig, toSimulatorOptions } from "./config";
import { createCarrierSimulator } from "./simulator";

runService({
  name: "carrier-simulator",
  loadConfig: () => loadSimulatorConfig(),
  start: async (config, logger) => {
    const simulator = await createCarrierSimulator({ ...toSimulatorOptions(config), logger });
    return { stop: () => simulator.close() };
  },
});
