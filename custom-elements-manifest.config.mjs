// The analyzer's configuration (`cem analyze`, run by `npm run build` after rollup, which fills dist/).
import { frameworkTypes, linkSettingAttributes, publicSurface, settingsFromSource } from './scripts/framework-types.mjs';

export default {
  plugins: [settingsFromSource(), linkSettingAttributes(), frameworkTypes(), publicSurface()],
};
