// The schemas of the API's answers are open objects: their JSON Schema lets other properties through,
// so a field an answer gains later does not make a client (an MCP client checking structuredContent
// against a tool's output schema) refuse the whole answer. z.object's JSON Schema forbids them, and
// z.looseObject's TypeScript type has an index signature that would loosen every answer's type.
import { z } from "zod";

export function answer<Shape extends z.ZodRawShape>(shape: Shape): z.ZodObject<Shape> {
  return z.object(shape).meta({ additionalProperties: {} });
}
