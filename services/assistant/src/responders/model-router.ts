import { BUILTIN_MODEL, isBuiltinModel, type BuiltinResponder } from './builtin';
import type { ContentModelResponder } from './content-model';
import type { Responder, ResponderCall, ResponderInput, ResponderOutput } from './responder';

/** 'builtin' runs the offline engine; any other model goes to the content service, which knows the registry. */
export class ModelRouter implements Responder {
  constructor(
    private readonly builtin: BuiltinResponder,
    private readonly remote: ContentModelResponder,
    readonly defaultModel: string,
  ) {}

  checkModel(model: string): string {
    return isBuiltinModel(model) ? BUILTIN_MODEL : model.trim();
  }

  respond(input: ResponderInput, call: ResponderCall): Promise<ResponderOutput> {
    return isBuiltinModel(call.model)
      ? this.builtin.respond(input, call)
      : this.remote.respond(input, call);
  }
}
