// The analyzer's configuration (`cem analyze`, run by `npm run build` after rollup, which fills dist/).
import {
  frameworkTypes,
  linkSettingAttributes,
  modulesInPathOrder,
  publicSurface,
  settingsFromSource,
} from './scripts/framework-types.mjs';

export default {
  // modulesInPathOrder first: the plugins after it, and the written manifest, see the modules in one order.
  plugins: [modulesInPathOrder(), settingsFromSource(), linkSettingAttributes(), frameworkTypes(), publicSurface()],
};
