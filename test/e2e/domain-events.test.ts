import { describeDomainEvents } from '../suites/domain-events';
import { embedded } from '../suites/target';

describeDomainEvents(embedded);
