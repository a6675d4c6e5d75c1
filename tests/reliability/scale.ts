/** How hard the reliability suite pushes: `light` inside npm test, `heavy` for npm run test:reliability. */
export interface Scale {
  name: 'light' | 'heavy';
  handlerBursts: number;
  httpBursts: number;
  burstSize: number;
  conflictBursts: number;
  stopCycles: number;
  fuzzRuns: number;
  httpFuzzRuns: number;
}

const LIGHT: Scale = {
  name: 'light',
  handlerBursts: 8,
  httpBursts: 2,
  burstSize: 20,
  conflictBursts: 3,
  stopCycles: 1,
  fuzzRuns: 150,
  httpFuzzRuns: 40,
};
const HEAVY: Scale = {
  name: 'heavy',
  handlerBursts: 160,
  httpBursts: 24,
  burstSize: 40,
  conflictBursts: 40,
  stopCycles: 4,
  fuzzRuns: 3000,
  httpFuzzRuns: 600,
};

export const scale: Scale = process.env['RELIABILITY_SCALE'] === 'heavy' ? HEAVY : LIGHT;
