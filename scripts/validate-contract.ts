// swagger-parser's validation of openapi.yaml (`npm test` runs it): the document must read the same
// in the tools integrators generate clients and gateways with, not only in Redocly and openapi-backend.
import SwaggerParser from '@apidevtools/swagger-parser';
import { SPEC_PATH } from '../server/file-locations.js';

try {
  const api = await SwaggerParser.validate(SPEC_PATH);
  console.log(`swagger-parser: ${api.info.title} ${api.info.version} is valid`);
} catch (error) {
  console.error(`swagger-parser: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
